import { join } from 'node:path';
import {
  Injectable,
  Module,
  UseGuards,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { McpExecutionContext, McpModule, McpTool, type McpModuleOptions } from '../../../../src';
import { McpSkill } from '../../../../src/entry/skills';
import { newKeyring } from '../../../fixtures/sample-app';

/** The skills folder the suites serve: `incident-triage` (with subfolders) and `api-guide`. */
export const SKILL_FOLDER = join(__dirname, 'skill-folder');

/** Lets through only requests whose `x-user` header is `alice`. */
@Injectable()
export class AliceOnlyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = McpExecutionContext.create(context).getOperationContext().http.request;
    return request.headers['x-user'] === 'alice';
  }
}

/** The month-end close procedure, built from the app's own data. */
export const PAYROLL_SKILL_MD = [
  '---',
  'name: payroll-close',
  'description: Close the payroll month - reconcile, approve, export.',
  '---',
  '',
  'Follow `checklists/MONTH_END.md`.',
  '',
].join('\n');

@Injectable()
export class SkillProviders {
  /** A skill only alice may see. */
  @UseGuards(AliceOnlyGuard)
  @McpSkill()
  payroll() {
    return {
      name: 'payroll-close',
      files: {
        'SKILL.md': PAYROLL_SKILL_MD,
        'checklists/MONTH_END.md': '# Month end\n\n- reconcile\n- approve\n- export\n',
      },
    };
  }

  /** Skills built at startup, served to everyone. */
  @McpSkill()
  async generated() {
    await Promise.resolve();
    return [
      {
        name: 'release-notes',
        files: {
          'SKILL.md':
            '---\nname: release-notes\ndescription: Write release notes from merged pull requests.\n---\n\nGroup by area.\n',
          'templates/notes.md': Buffer.from('## What changed\n'),
        },
      },
    ];
  }

  @McpTool({ description: 'A plain tool beside the skills' })
  ping(): string {
    return 'pong';
  }
}

const { active, keys } = newKeyring(['k1']);
const KEYRING = { active, keys };

/** An app serving the skills folder and `SkillProviders`, with `options` merged in. */
export function skillsApp(options: Partial<McpModuleOptions> = {}) {
  @Module({
    imports: [
      McpModule.forRoot({
        serverInfo: { name: 'skills-e2e', version: '1.0.0' },
        keyring: KEYRING,
        ...options,
        skills: { directory: SKILL_FOLDER, ...options.skills },
      }),
    ],
    providers: [SkillProviders, AliceOnlyGuard],
  })
  class SkillsAppModule {}
  return SkillsAppModule;
}
