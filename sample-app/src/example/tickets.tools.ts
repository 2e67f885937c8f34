import { Injectable, UseGuards } from '@nestjs/common';
import { Throttle } from '@nestjs/throttler';
import { McpThrottlerGuard } from '../../../src/entry/throttler';
import { McpArgs, McpTool } from '../../../src/index';
import { CreateTicketDto } from './create-ticket.dto';
import { RequireRole } from './require-role.decorator';
import { TicketsService, type Ticket } from './tickets.service';

/** A realistic tool: validated DTO arguments, a role check, a service behind it. */
@Injectable()
export class TicketTools {
  constructor(private readonly tickets: TicketsService) {}

  // Rate-limited per caller (its state partition) after the role guard: 30 tickets a minute.
  @UseGuards(McpThrottlerGuard)
  @Throttle({ default: { limit: 30, ttl: 60_000 } })
  @RequireRole('agent')
  @McpTool({
    name: 'create_ticket',
    title: 'Create support ticket',
    description: 'Opens a support ticket. Requires the "agent" role; 30 a minute per caller.',
  })
  createTicket(@McpArgs() dto: CreateTicketDto): Ticket {
    return this.tickets.create(dto);
  }
}
