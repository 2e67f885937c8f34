import { IsIn, IsString, Length } from 'class-validator';

export const TICKET_PRIORITIES = ['low', 'medium', 'high'] as const;
export type TicketPriority = (typeof TICKET_PRIORITIES)[number];

/** Arguments of `create_ticket`; its JSON Schema becomes the tool's `inputSchema`. */
export class CreateTicketDto {
  @IsString()
  @Length(1, 120)
  title!: string;

  @IsIn(TICKET_PRIORITIES)
  priority!: TicketPriority;
}
