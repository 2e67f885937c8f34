import { Module } from '@nestjs/common';
import { McpHealthModule } from '../../../src/entry/health';
import { ProbesController } from './probes.controller';

/** `GET /health/live` and `GET /health/ready` for an orchestrator's probes. */
@Module({ imports: [McpHealthModule], controllers: [ProbesController] })
export class ProbesModule {}
