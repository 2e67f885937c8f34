import { Module } from '@nestjs/common';
import { ExportReportTool } from './export-report.tool';
import { TaskFixtures } from './task-fixtures';

/** Tools that run as tasks (the `io.modelcontextprotocol/tasks` extension). */
@Module({ providers: [TaskFixtures, ExportReportTool] })
export class TasksModule {}
