import { Controller, Get, NotFoundException, Query } from '@nestjs/common';
import { Public } from '../auth/public.decorator.js';
import { ConnectionStore } from './connection.store.js';

/** Where GitHub sends the user's browser back after sign-in (an ordinary Nest route). */
@Controller('connect/github')
export class ConnectionsController {
  constructor(private readonly connections: ConnectionStore) {}

  @Public()
  @Get('callback')
  callback(@Query('flow') flow: string): string {
    if (!this.connections.complete(flow)) throw new NotFoundException();
    return 'GitHub is connected. You can close this window.';
  }
}
