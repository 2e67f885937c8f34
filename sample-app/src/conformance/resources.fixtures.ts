import { Injectable } from '@nestjs/common';
import { McpArgs, McpResource } from '../../../src/index';
import { PNG_BASE64 } from './fixture-media';

/**
 * Resource fixtures of the `resources-*` and `caching` scenarios. `test://static-text` must stay the
 * first listed resource: `caching` reads whatever `resources/list` returns first.
 */
@Injectable()
export class ResourceFixtures {
  @McpResource({
    uri: 'test://static-text',
    name: 'static-text',
    description: 'A static text resource',
    mimeType: 'text/plain',
  })
  staticText(): string {
    return 'This is the content of the static text resource.';
  }

  @McpResource({
    uri: 'test://static-binary',
    name: 'static-binary',
    description: 'A static PNG image',
    mimeType: 'image/png',
  })
  staticBinary(): Uint8Array {
    return Buffer.from(PNG_BASE64, 'base64');
  }

  @McpResource({
    uriTemplate: 'test://template/{id}/data',
    name: 'template-data',
    description: 'JSON data for any id',
    mimeType: 'application/json',
  })
  templateData(@McpArgs('id') id: string): string {
    return JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` });
  }
}
