import { Controller, Get, HttpCode, Post, UseGuards, type OnModuleDestroy } from '@nestjs/common';
import { readFileSync, writeFileSync } from 'node:fs';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { AdminTokenGuard } from './admin-token.guard';

/** What an operator watches under load: event-loop delay since the last reset, CPU time and memory. */
export interface HealthReport {
  status: 'ok';
  eventLoopDelayMs: { max: number; p99: number; mean: number };
  /** CPU time the process has used since it started (user + system, all threads), in ms. */
  cpuMs: number;
  rssBytes: number;
  /**
   * The most RSS the process has had since the last reset (Linux: `VmHWM`, which the reset puts
   * back to the current RSS), or since it started elsewhere.
   */
  maxRssBytes: number;
  heapUsedBytes: number;
}

const NS_PER_MS = 1e6;

/** The process's peak RSS: `VmHWM` of /proc/self/status on Linux, `maxRSS` elsewhere. */
function peakRssBytes(): number {
  try {
    const kib = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (kib !== undefined) return Number(kib) * 1024;
  } catch {
    // Not Linux.
  }
  return process.resourceUsage().maxRSS * 1024;
}

/** Puts the peak RSS back to the current RSS (Linux, `clear_refs` 5); elsewhere it keeps growing. */
function resetPeakRss(): void {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // Not Linux: the peak is the process's.
  }
}

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
      maxRssBytes: peakRssBytes(),
      heapUsedBytes: memory.heapUsed,
    };
  }

  /** Starts a new measurement window. */
  @Post('reset')
  @HttpCode(204)
  reset(): void {
    this.loopDelay.reset();
    resetPeakRss();
  }

  onModuleDestroy(): void {
    this.loopDelay.disable();
  }
}
