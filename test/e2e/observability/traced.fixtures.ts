import { Injectable, Module } from '@nestjs/common';
import { trace } from '@opentelemetry/api';
import { McpTool } from '../../../src/index';

/** A tool that makes a span of its own, as an instrumented application would. */
@Injectable()
export class TracedFixtures {
  @McpTool({ name: 'traced_work', description: 'Does some work inside a span of its own' })
  work(): string {
    return trace.getTracer('app').startActiveSpan('app.work', (span) => {
      span.end();
      return 'worked';
    });
  }
}

@Module({ providers: [TracedFixtures] })
export class TracedFixturesModule {}
