import { Injectable } from '@nestjs/common';
import { McpArgs, McpTool } from '../../../src/index';
import { CreateTicketDto } from './create-ticket.dto';
import { RequireRole } from './require-role.decorator';
import { TicketsService, type Ticket } from './tickets.service';

/** A realistic tool: validated DTO arguments, a role check, a service behind it. */
@Injectable()
export class TicketTools {
  constructor(private readonly tickets: TicketsService) {}

  @RequireRole('agent')
  @McpTool({
    name: 'create_ticket',
    title: 'Create support ticket',
    description: 'Opens a support ticket. Requires the "agent" role.',
  })
  createTicket(@McpArgs() dto: CreateTicketDto): Ticket {
    return this.tickets.create(dto);
  }
}
