import { Injectable } from '@nestjs/common';
import { IsBoolean, IsIn, IsString, Matches, MaxLength } from 'class-validator';
import {
  McpArgs,
  McpContext,
  McpInputRequest,
  McpInputRequiredResult,
  McpMayRequestInput,
  McpRequestStateMode,
  McpTool,
} from 'nestjs-mcp';
import type { AppUser } from '../auth/app-user.js';
import { CurrentUser } from '../auth/current-user.decorator.js';

export class TripDto {
  @IsString()
  @MaxLength(40)
  destination!: string;
}

export class DepartureAnswer {
  @Matches(/^\d{4}-\d{2}-\d{2}$/)
  departure!: string;
}

export class CabinAnswer {
  @IsIn(['economy', 'business'])
  cabin!: string;
}

export class BookAnswer {
  @IsBoolean()
  book!: boolean;
}

/** What the flow knows between rounds, sealed by the module; `roundsBy` is who each round ran as. */
type Trip = {
  asked: 'departure' | 'cabin' | 'book';
  departure?: string;
  cabin?: string;
  roundsBy: string[];
};

@Injectable()
export class PlanTripTools {
  /** Asks for the departure date, then the cabin, then for a go-ahead: four rounds. */
  @McpTool({
    name: 'plan_trip',
    description: 'Books a trip after asking for the date, the cabin and a go-ahead',
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
    singleUse: true,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  planTrip(
    @McpArgs() { destination }: TripDto,
    @McpContext() ctx: McpContext,
    @CurrentUser() user: AppUser,
  ): string | McpInputRequiredResult {
    const previous = ctx.requestState.framework<Trip>();
    const roundsBy = [...(previous?.roundsBy ?? []), user.username];
    if (!previous)
      return ask({ asked: 'departure', roundsBy }, `When do you leave for ${destination}?`);
    if (previous.asked === 'departure') {
      const answer = ctx.inputResponses.find('departure', DepartureAnswer);
      if (answer?.action !== 'accept' || !answer.content) return 'Trip not booked';
      const trip: Trip = { asked: 'cabin', departure: answer.content.departure, roundsBy };
      return ask(trip, `Economy or business, leaving ${trip.departure}?`);
    }
    if (previous.asked === 'cabin') {
      const answer = ctx.inputResponses.find('cabin', CabinAnswer);
      if (answer?.action !== 'accept' || !answer.content) return 'Trip not booked';
      const trip: Trip = { ...previous, asked: 'book', cabin: answer.content.cabin, roundsBy };
      return ask(trip, `Book ${trip.cabin} to ${destination} on ${trip.departure}?`);
    }
    const answer = ctx.inputResponses.find('book', BookAnswer);
    if (answer?.action !== 'accept' || !answer.content?.book) return 'Trip not booked';
    return (
      `Booked ${previous.cabin} to ${destination} on ${previous.departure} ` +
      `(rounds as ${roundsBy.join(', ')})`
    );
  }
}

const SCHEMAS = {
  departure: { departure: { type: 'string', description: 'YYYY-MM-DD' } },
  cabin: { cabin: { type: 'string', enum: ['economy', 'business'] } },
  book: { book: { type: 'boolean' } },
};

function ask(trip: Trip, message: string): McpInputRequiredResult {
  return McpInputRequiredResult.builder()
    .inputRequest(
      trip.asked,
      McpInputRequest.elicitForm({
        message,
        requestedSchema: {
          type: 'object',
          properties: SCHEMAS[trip.asked],
          required: [trip.asked],
        },
      }),
    )
    .frameworkState(trip)
    .build();
}
