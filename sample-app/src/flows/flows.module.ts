import { Module } from '@nestjs/common';
import { FlowTools } from './flow.tools';
import { SideEffectsService } from './side-effects.service';

@Module({ providers: [FlowTools, SideEffectsService] })
export class FlowsModule {}
