import { Injectable } from '@nestjs/common';
import { Matches } from 'class-validator';
import { McpArgs, McpTool } from 'nestjs-mcp';

export class ReportDto {
  @Matches(/^\d{4}-\d{2}$/)
  month!: string;
}

@Injectable()
export class ReportTools {
  @McpTool({
    name: 'export_report',
    description: 'Exports the usage report of a month; may run as a task',
    taskSupport: 'optional',
  })
  exportReport(@McpArgs() { month }: ReportDto): string {
    return `Exported the usage report of ${month}`;
  }
}
