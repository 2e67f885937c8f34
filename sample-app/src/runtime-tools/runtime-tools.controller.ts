import {
  BadRequestException,
  Body,
  ConflictException,
  Controller,
  Delete,
  HttpCode,
  NotFoundException,
  Param,
  Post,
  UseGuards,
} from '@nestjs/common';
import { DuplicateOperationError, InvalidOperationDefinitionError } from '../../../src/index';
import { AdminTokenGuard } from '../admin/admin-token.guard';
import { SampleToolDefinition } from './sample-tool-definition';
import { RuntimeTools } from './runtime-tools.service';

/**
 * Tools defined while the app runs (`MCP_ADMIN_TOKEN`): `POST /admin/tools` serves one (on every
 * instance within about a second with `MCP_STORE=redis`), `DELETE /admin/tools/<name>` removes it.
 */
@Controller('admin/tools')
@UseGuards(AdminTokenGuard)
export class RuntimeToolsController {
  constructor(private readonly tools: RuntimeTools) {}

  @Post()
  @HttpCode(201)
  async define(@Body() definition: SampleToolDefinition): Promise<{ name: string }> {
    try {
      await this.tools.define(definition);
    } catch (error) {
      if (error instanceof DuplicateOperationError)
        throw new ConflictException(`A tool of the app is named "${definition.name}"`);
      if (error instanceof InvalidOperationDefinitionError)
        throw new BadRequestException(error.message);
      throw error;
    }
    return { name: definition.name };
  }

  @Delete(':name')
  @HttpCode(204)
  async remove(@Param('name') name: string): Promise<void> {
    if (!(await this.tools.remove(name))) throw new NotFoundException();
  }
}
