import { Module } from '@nestjs/common';
import { DiagnosticFixtures } from './diagnostics.fixtures';
import { InputRequiredFixtures } from './input-required.fixtures';
import { PromptFixtures } from './prompts.fixtures';
import { ResourceFixtures } from './resources.fixtures';
import { SchemaFixtures } from './schema.fixtures';
import { SessionFixtures } from './session.fixtures';
import { ToolFixtures } from './tools.fixtures';

/**
 * The fixtures the MCP conformance suite drives. `ToolFixtures` comes first because
 * `http-header-validation` calls whichever tool `tools/list` returns first with `arguments: {}`.
 */
@Module({
  providers: [
    ToolFixtures,
    DiagnosticFixtures,
    SchemaFixtures,
    PromptFixtures,
    ResourceFixtures,
    InputRequiredFixtures,
    SessionFixtures,
  ],
})
export class ConformanceModule {}
