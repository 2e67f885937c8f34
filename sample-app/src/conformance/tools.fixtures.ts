import { Injectable } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { McpContext, McpTool, McpToolError } from '../../../src/index';
import { PNG_BASE64, WAV_BASE64 } from './fixture-media';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Content-type tools of the conformance suite (scenarios `tools-call-*`). */
@Injectable()
export class ToolFixtures {
  @McpTool({ name: 'test_simple_text', description: 'Returns a simple text response' })
  simpleText(): string {
    return 'This is a simple text response for testing.';
  }

  @McpTool({ name: 'test_image_content', description: 'Returns a PNG image' })
  imageContent(): CallToolResult {
    return { content: [{ type: 'image', data: PNG_BASE64, mimeType: 'image/png' }] };
  }

  @McpTool({ name: 'test_audio_content', description: 'Returns a WAV audio clip' })
  audioContent(): CallToolResult {
    return { content: [{ type: 'audio', data: WAV_BASE64, mimeType: 'audio/wav' }] };
  }

  @McpTool({ name: 'test_embedded_resource', description: 'Returns an embedded text resource' })
  embeddedResource(): CallToolResult {
    return {
      content: [
        {
          type: 'resource',
          resource: {
            uri: 'test://embedded-resource',
            mimeType: 'text/plain',
            text: 'This is an embedded resource content.',
          },
        },
      ],
    };
  }

  @McpTool({
    name: 'test_multiple_content_types',
    description: 'Returns text, image and resource content',
  })
  multipleContentTypes(): CallToolResult {
    return {
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: JSON.stringify({ test: 'data', value: 123 }),
          },
        },
      ],
    };
  }

  @McpTool({ name: 'test_error_handling', description: 'Always fails with a tool error result' })
  errorHandling(): never {
    throw new McpToolError('This tool intentionally returns an error for testing');
  }

  @McpTool({
    name: 'test_tool_with_progress',
    description: 'Reports progress 0, 50 and 100 of 100',
  })
  async withProgress(@McpContext() ctx: McpContext): Promise<string> {
    for (const progress of [0, 50, 100]) {
      if (progress > 0) await sleep(50);
      await ctx.progress.report(progress, 100);
    }
    return 'Progress complete';
  }
}
