import { Injectable } from '@nestjs/common';
import { IsBoolean, IsString, MaxLength } from 'class-validator';
import {
  McpArgs,
  McpContext,
  McpInputRequest,
  McpInputRequiredResult,
  McpMayRequestInput,
  McpRequestStateMode,
  McpTool,
} from 'nestjs-mcp';

export class DeleteFileDto {
  @IsString()
  @MaxLength(255)
  path!: string;
}

export class ConfirmAnswer {
  @IsBoolean()
  confirm!: boolean;
}

@Injectable()
export class DeleteFileTools {
  @McpTool({
    name: 'delete_file',
    description: 'Deletes a file after the user confirms',
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  deleteFile(
    @McpArgs() { path }: DeleteFileDto,
    @McpContext() ctx: McpContext,
  ): string | McpInputRequiredResult {
    const asked = ctx.requestState.framework<{ asked: boolean }>()?.asked === true;
    const answer = asked ? ctx.inputResponses.find('confirm', ConfirmAnswer) : undefined;
    if (!answer) {
      return McpInputRequiredResult.builder()
        .inputRequest(
          'confirm',
          McpInputRequest.elicitForm({
            message: `Delete ${path}?`,
            requestedSchema: {
              type: 'object',
              properties: { confirm: { type: 'boolean' } },
              required: ['confirm'],
            },
          }),
        )
        .frameworkState({ asked: true })
        .build();
    }
    if (answer.action !== 'accept' || !answer.content?.confirm) return `Kept ${path}`;
    return `Deleted ${path}`;
  }
}
