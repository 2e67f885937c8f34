import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import { TicketTriageSkill } from './ticket-triage.skill';
import { TicketsService } from './tickets.service';
import { TicketTools } from './tickets.tools';

/**
 * `create_ticket`, rate-limited in memory (ThrottlerModule's default storage), and the
 * `ticket-triage` skill, guarded as it is.
 */
@Module({
  imports: [ThrottlerModule.forRoot([{ ttl: 60_000, limit: 30 }])],
  providers: [TicketsService, TicketTools, TicketTriageSkill],
})
export class ExampleModule {}
