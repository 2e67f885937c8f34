import { Module } from '@nestjs/common';
import { FlowTools } from './flow.tools';
import { OnboardUserTool } from './onboard-user.tool';
import { SideEffectsService } from './side-effects.service';

@Module({ providers: [FlowTools, OnboardUserTool, SideEffectsService] })
export class FlowsModule {}
