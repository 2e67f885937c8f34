import { Injectable } from '@nestjs/common';
import type { GetPromptResult } from '@modelcontextprotocol/server';
import { McpArgs, McpPrompt } from '../../../src/index';
import { PNG_BASE64 } from './fixture-media';

const ARG1_SUGGESTIONS = ['test', 'testValue1', 'testing', 'example'];

/** Prompt fixtures of the `prompts-*` and `completion-complete` scenarios. */
@Injectable()
export class PromptFixtures {
  @McpPrompt({ name: 'test_simple_prompt', description: 'A simple prompt without arguments' })
  simplePrompt(): string {
    return 'This is a simple prompt for testing.';
  }

  @McpPrompt({
    name: 'test_prompt_with_arguments',
    description: 'A prompt with two required arguments',
    arguments: [
      { name: 'arg1', description: 'First test argument', required: true },
      { name: 'arg2', description: 'Second test argument', required: true },
    ],
    complete: {
      arg1: (value) => ARG1_SUGGESTIONS.filter((candidate) => candidate.startsWith(value)),
    },
  })
  withArguments(@McpArgs('arg1') arg1: string, @McpArgs('arg2') arg2: string): string {
    return `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`;
  }

  @McpPrompt({
    name: 'test_prompt_with_embedded_resource',
    description: 'A prompt that embeds a resource',
    arguments: [
      { name: 'resourceUri', description: 'URI of the resource to embed', required: true },
    ],
  })
  withEmbeddedResource(@McpArgs('resourceUri') resourceUri: string): GetPromptResult {
    return {
      messages: [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: {
              uri: resourceUri,
              mimeType: 'text/plain',
              text: 'Embedded resource content for testing.',
            },
          },
        },
        {
          role: 'user',
          content: { type: 'text', text: 'Please process the embedded resource above.' },
        },
      ],
    };
  }

  @McpPrompt({ name: 'test_prompt_with_image', description: 'A prompt that includes an image' })
  withImage(): GetPromptResult {
    return {
      messages: [
        { role: 'user', content: { type: 'image', data: PNG_BASE64, mimeType: 'image/png' } },
        { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
      ],
    };
  }
}
