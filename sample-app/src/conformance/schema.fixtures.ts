import { Injectable } from '@nestjs/common';
import { McpArgs, McpTool } from '../../../src/index';

/** Advertised verbatim; scenario `json-schema-2020-12` checks that nothing is stripped. */
const JSON_SCHEMA_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

/** Schema fixtures of the not-scored SEP-2106 and SEP-2243 scenarios. */
@Injectable()
export class SchemaFixtures {
  @McpTool({
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    inputSchema: JSON_SCHEMA_2020_12,
  })
  jsonSchema202012(@McpArgs() args: Record<string, unknown>): string {
    return `Received: ${JSON.stringify(args)}`;
  }

  @McpTool({
    name: 'test_custom_header',
    description: 'Echoes a region that clients mirror into the Mcp-Param-Region header',
    inputSchema: {
      type: 'object',
      properties: {
        region: { type: 'string', description: 'Deployment region', 'x-mcp-header': 'Region' },
      },
      required: ['region'],
    },
  })
  customHeader(@McpArgs('region') region: string): string {
    return `Region: ${region}`;
  }
}
