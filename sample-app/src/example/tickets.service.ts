import { Injectable } from '@nestjs/common';
import type { CreateTicketDto, TicketPriority } from './create-ticket.dto';

export interface Ticket {
  id: number;
  title: string;
  priority: TicketPriority;
  createdAt: string;
}

/** In-memory ticket store. */
@Injectable()
export class TicketsService {
  private readonly tickets: Ticket[] = [];

  create(dto: CreateTicketDto): Ticket {
    const ticket: Ticket = {
      id: this.tickets.length + 1,
      title: dto.title,
      priority: dto.priority,
      createdAt: new Date().toISOString(),
    };
    this.tickets.push(ticket);
    return ticket;
  }
}
