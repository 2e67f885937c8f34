import { Injectable } from '@nestjs/common';
import { McpSkill } from '../../../src/entry/skills';
import { TICKET_PRIORITIES } from './create-ticket.dto';
import { RequireRole } from './require-role.decorator';

/**
 * `ticket-triage`: how an agent files tickets with `create_ticket`, built from the app's own
 * priorities. Guarded exactly as `create_ticket` is (the `agent` role): a caller without it finds
 * the skill in no list, and each of its URIs answers as one nobody serves.
 */
@Injectable()
export class TicketTriageSkill {
  @RequireRole('agent')
  @McpSkill()
  ticketTriage() {
    return {
      name: 'ticket-triage',
      files: {
        'SKILL.md': [
          '---',
          'name: ticket-triage',
          'description: Triage a customer report and file it with create_ticket at the right priority.',
          'metadata:',
          '  audience: support agents',
          '---',
          '',
          '1. Decide the priority with `references/PRIORITIES.md`.',
          '2. Call `create_ticket` with a one-line title and the priority.',
          '',
        ].join('\n'),
        'references/PRIORITIES.md': [
          '# Priorities',
          '',
          ...TICKET_PRIORITIES.map(
            (priority) => `- \`${priority}\`: ${PRIORITY_MEANING[priority]}`,
          ),
          '',
        ].join('\n'),
      },
    };
  }
}

const PRIORITY_MEANING: Record<(typeof TICKET_PRIORITIES)[number], string> = {
  low: 'a question or a cosmetic problem; answered within a week.',
  medium: 'a feature does not work for one customer; answered within a day.',
  high: 'customers cannot work; page the on-call engineer.',
};
