import { Injectable, Module, NotFoundException, UnauthorizedException } from '@nestjs/common';
import { McpPrompt, McpResource, McpTool } from '../../../src/index';

/** A value a failing tool throws that must never reach the wire. */
export const THROWN_VALUE = 'boom: the vault combination is 1234';

/** The bytes the `fixtures://logo.png` resource returns. */
const LOGO_BYTES = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0xfe]);

/** What the `weather` tool returns; its `outputSchema` describes it. */
export const WEATHER = { city: 'Oslo', celsius: 3.5, windy: true };

/** Operations covering the error-table rows and result shapes of docs/errors.md and getting-started. */
@Injectable()
export class ErrorMappingOperations {
  @McpTool({ name: 'locked', description: 'Needs a login it never gets' })
  locked(): never {
    throw new UnauthorizedException('token expired for alice@example.com');
  }

  @McpTool({ name: 'find_item', description: 'Looks up an item that does not exist' })
  findItem(): never {
    throw new NotFoundException('Item 9 does not exist');
  }

  @McpTool({ name: 'throw_value', description: 'Throws a string, not an Error' })
  throwValue(): never {
    throw THROWN_VALUE;
  }

  @McpTool({
    name: 'weather',
    description: 'Reports the weather as structured content',
    outputSchema: {
      type: 'object',
      properties: {
        city: { type: 'string' },
        celsius: { type: 'number' },
        windy: { type: 'boolean' },
      },
      required: ['city', 'celsius'],
    },
  })
  weather(): typeof WEATHER {
    return WEATHER;
  }

  @McpPrompt({ name: 'missing_draft', description: 'Drafts from a template that does not exist' })
  missingDraft(): never {
    throw new NotFoundException('Draft 3 does not exist');
  }

  @McpResource({
    uri: 'fixtures://logo.png',
    name: 'logo',
    description: 'A few bytes of PNG',
    mimeType: 'image/png',
  })
  logo(): Uint8Array {
    return LOGO_BYTES;
  }
}

/** The operations of the error-mapping cases of the operations e2e suite. */
@Module({ providers: [ErrorMappingOperations] })
export class ErrorMappingModule {}
