import { Controller, Get, HttpCode, Post, UseGuards, type OnModuleDestroy } from '@nestjs/common';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { AdminTokenGuard } from './admin-token.guard';

/** What an operator watches under load: event-loop delay since the last reset, CPU time and memory. */
export interface HealthReport {
  status: 'ok';
  eventLoopDelayMs: { max: number; p99: number; mean: number };
  /** CPU time the process has used since it started (user + system, all threads), in ms. */
  cpuMs: number;
  rssBytes: number;
  /** The most RSS the process has had since it started (`process.resourceUsage().maxRSS`). */
  maxRssBytes: number;
  heapUsedBytes: number;
}

const NS_PER_MS = 1e6;

/** Process health for operators (and the hostile-input tests). Needs `MCP_ADMIN_TOKEN`. */
@Controller('admin/health')
@UseGuards(AdminTokenGuard)
export class HealthController implements OnModuleDestroy {
  private readonly loopDelay: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });

  constructor() {
    this.loopDelay.enable();
  }

  @Get()
  report(): HealthReport {
    const memory = process.memoryUsage();
    const cpu = process.cpuUsage();
    return {
      status: 'ok',
      eventLoopDelayMs: {
        max: this.loopDelay.max / NS_PER_MS,
        p99: this.loopDelay.percentile(99) / NS_PER_MS,
        mean: this.loopDelay.mean / NS_PER_MS,
      },
      cpuMs: (cpu.user + cpu.system) / 1000,
      rssBytes: memory.rss,
      maxRssBytes: process.resourceUsage().maxRSS * 1024,
      heapUsedBytes: memory.heapUsed,
    };
  }

  /** Starts a new measurement window. */
  @Post('reset')
  @HttpCode(204)
  reset(): void {
    this.loopDelay.reset();
  }

  onModuleDestroy(): void {
    this.loopDelay.disable();
  }
}
