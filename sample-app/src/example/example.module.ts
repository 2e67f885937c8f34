import { Module } from '@nestjs/common';
import { TicketsService } from './tickets.service';
import { TicketTools } from './tickets.tools';

@Module({ providers: [TicketsService, TicketTools] })
export class ExampleModule {}
