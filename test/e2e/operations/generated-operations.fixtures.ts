import { Injectable, Module, type Type } from '@nestjs/common';
import {
  McpArgs,
  McpModule,
  McpPrompt,
  McpResource,
  McpTool,
  type McpModuleOptions,
} from '../../../src/index';

/** How many operations of each kind a generated app registers. */
export interface GeneratedCounts {
  readonly tools: number;
  readonly prompts?: number;
  readonly resources?: number;
  readonly templates?: number;
}

const TOOLS_PER_CLASS = 10;

const pad = (index: number) => String(index).padStart(5, '0');

/** The name of generated tool `index`: `tool_00000`, `tool_00001`, … (registration order). */
export const generatedToolName = (index: number) => `tool_${pad(index)}`;

const SCHEMA = {
  type: 'object',
  properties: { text: { type: 'string', maxLength: 100_000 } },
} as const;

/** Defines `count` methods on `target`, each decorated by what `decorate(index)` gives. */
function defineMethods(
  target: Type<unknown>,
  prefix: string,
  count: number,
  body: (index: number) => (...args: unknown[]) => unknown,
  decorate: (
    index: number,
  ) => ((prototype: object, key: string, descriptor: PropertyDescriptor) => unknown)[],
): void {
  for (let index = 0; index < count; index++) {
    const key = `${prefix}${index}`;
    Object.defineProperty(target.prototype, key, {
      value: body(index),
      writable: true,
      configurable: true,
    });
    const descriptor = Object.getOwnPropertyDescriptor(target.prototype, key)!;
    for (const decorator of decorate(index)) decorator(target.prototype, key, descriptor);
    Reflect.defineMetadata('design:paramtypes', [Object], target.prototype, key);
  }
}

/**
 * An app with generated operations, as an app generated from an API catalogue would have:
 * tools that echo their `text` argument, prompts, fixed resources and URI templates.
 */
export function generatedOperationsApp(
  counts: GeneratedCounts,
  options: Partial<McpModuleOptions> = {},
): Type<unknown> {
  @Injectable()
  class GeneratedOperations {}
  // Tools come in classes of TOOLS_PER_CLASS, as an app generated from an API catalogue groups
  // them by resource (and a prototype with thousands of methods would be slow for reasons of its own).
  const toolClasses: Type<unknown>[] = [];
  for (let first = 0; first < counts.tools; first += TOOLS_PER_CLASS) {
    @Injectable()
    class GeneratedTools {}
    defineMethods(
      GeneratedTools,
      'tool',
      Math.min(TOOLS_PER_CLASS, counts.tools - first),
      () => (args: unknown) => (args as { text?: string }).text ?? '',
      (offset) => [
        McpTool({
          name: generatedToolName(first + offset),
          description: `Generated tool ${first + offset}: echoes its text`,
          inputSchema: SCHEMA,
        }),
        (prototype: object, key: string | symbol) => McpArgs()(prototype, key, 0),
      ],
    );
    toolClasses.push(GeneratedTools);
  }
  defineMethods(
    GeneratedOperations,
    'prompt',
    counts.prompts ?? 0,
    (index) => () => `prompt ${index}`,
    (index) => [
      McpPrompt({ name: `prompt_${pad(index)}`, description: `Generated prompt ${index}` }),
    ],
  );
  defineMethods(
    GeneratedOperations,
    'resource',
    counts.resources ?? 0,
    (index) => () => `resource ${index}`,
    (index) => [McpResource({ name: `resource_${pad(index)}`, uri: `gen://fixed/${pad(index)}` })],
  );
  defineMethods(
    GeneratedOperations,
    'template',
    counts.templates ?? 0,
    (index) => () => `template ${index}`,
    (index) => [
      McpResource({ name: `template_${pad(index)}`, uriTemplate: `gen://t${pad(index)}/{id}` }),
    ],
  );

  @Module({
    imports: [
      McpModule.forRoot({
        serverInfo: { name: 'generated', version: '1.0.0' },
        allowEphemeralKey: true,
        ...options,
      }),
    ],
    providers: [GeneratedOperations, ...toolClasses],
  })
  class GeneratedOperationsModule {}
  return GeneratedOperationsModule;
}
