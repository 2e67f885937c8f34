import {
  ForbiddenException,
  HttpException,
  HttpStatus,
  Injectable,
  Module,
  UnauthorizedException,
  UseGuards,
  type CanActivate,
  type ExecutionContext,
  type Type,
} from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import type { IncomingMessage } from 'node:http';
import { McpModule, McpPrompt, McpResource, McpTool } from '../../../src/index';
import { McpSkill } from '../../../src/entry/skills';

/** The callers: `Authorization: Bearer <name>`, or nobody (no header). */
export const USERS = ['alice', 'bob', 'admin'] as const;

/** The bearer token of a request, if any. */
function bearerOf(context: ExecutionContext): string | undefined {
  const header = context.switchToHttp().getRequest<IncomingMessage>().headers.authorization;
  return /^Bearer (\S+)$/.exec(header ?? '')?.[1];
}

/**
 * The app's authentication in guard mode (passport style, global): a known user passes, nobody
 * passes as anonymous, any other token (`Bearer expired`) is refused with a 401.
 */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const token = bearerOf(context);
    if (token !== undefined && !(USERS as readonly string[]).includes(token))
      throw new UnauthorizedException('token expired');
    return true;
  }
}

/** Admins only, as the sample's admin-token guard: anyone else is challenged with a 401. */
@Injectable()
class AdminOnlyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (bearerOf(context) !== 'admin') throw new UnauthorizedException('admins only');
    return true;
  }
}

/** Alice only, refused with a 403. */
@Injectable()
class ForbidsGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (bearerOf(context) !== 'alice') throw new ForbiddenException();
    return true;
  }
}

/** Alice only, everyone else rate limited (429, as `@nestjs/throttler`'s exception). */
@Injectable()
class ThrottlesGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (bearerOf(context) !== 'alice')
      throw new HttpException('Too Many Requests', HttpStatus.TOO_MANY_REQUESTS);
    return true;
  }
}

/** Alice only; for anyone else it has a bug (a plain `Error`, a 500). */
@Injectable()
class BreaksGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (bearerOf(context) !== 'alice') throw new Error('the guard has a bug');
    return true;
  }
}

/** Alice only, denying everyone else (`false`). */
@Injectable()
class DeniesGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    return bearerOf(context) === 'alice';
  }
}

/** Each group of entries and the guard its class carries. */
export const GROUPS = {
  open: undefined,
  admin: AdminOnlyGuard,
  forbids: ForbidsGuard,
  throttles: ThrottlesGuard,
  breaks: BreaksGuard,
  denies: DeniesGuard,
} satisfies Record<string, Type<CanActivate> | undefined>;

export type GroupName = keyof typeof GROUPS;

/** The groups a caller's guards let through. */
export function groupsSeenBy(caller: (typeof USERS)[number] | undefined): GroupName[] {
  if (caller === 'alice') return ['open', 'forbids', 'throttles', 'breaks', 'denies'];
  if (caller === 'admin') return ['open', 'admin'];
  return ['open'];
}

/** A tool, a prompt, a resource, a resource template and a skill named after `group`. */
function entriesOf(group: GroupName): Type<unknown> {
  @Injectable()
  class Entries {
    @McpTool({ name: `${group}_tool`, description: `The ${group} tool` })
    tool(): string {
      return group;
    }

    @McpPrompt({ name: `${group}_prompt`, description: `The ${group} prompt` })
    prompt(): string {
      return group;
    }

    @McpResource({ uri: `${group}://doc`, name: `${group}_doc`, description: `The ${group} doc` })
    doc(): string {
      return group;
    }

    @McpResource({
      uriTemplate: `${group}://items/{id}`,
      name: `${group}_item`,
      description: `The ${group} items`,
    })
    item(): string {
      return group;
    }

    @McpSkill()
    skill() {
      return {
        name: `${group}-skill`,
        files: {
          'SKILL.md': `---\nname: ${group}-skill\ndescription: The ${group} skill.\n---\n\nSee refs/NOTE.md.\n`,
          'refs/NOTE.md': `# ${group}\n`,
        },
      };
    }
  }
  Object.defineProperty(Entries, 'name', { value: `${group}Entries` });
  const guard = GROUPS[group];
  if (guard) UseGuards(guard)(Entries);
  return Entries;
}

const ENTRIES = Object.fromEntries(
  (Object.keys(GROUPS) as GroupName[]).map((group) => [group, entriesOf(group)]),
) as Record<GroupName, Type<unknown>>;

/**
 * An app serving the entries of `groups` (in the same order whichever are served), lists in pages
 * of 2, with or without a global authentication guard.
 */
export function listGuardsApp(options: {
  groups: readonly GroupName[];
  fastPath: boolean;
  globalAuth: boolean;
}): Type<unknown> {
  const served = (Object.keys(GROUPS) as GroupName[]).filter((group) =>
    options.groups.includes(group),
  );
  @Module({
    imports: [
      McpModule.forRoot({
        serverInfo: { name: 'list-guards', version: '1.0.0' },
        allowEphemeralKey: true,
        http: { fastPath: options.fastPath },
        lists: { pageSize: 2 },
        skills: {},
      }),
    ],
    providers: [
      ...served.map((group) => ENTRIES[group]),
      ...Object.values(GROUPS).filter((guard) => guard !== undefined),
      ...(options.globalAuth ? [{ provide: APP_GUARD, useClass: BearerAuthGuard }] : []),
    ],
  })
  class ListGuardsApp {}
  return ListGuardsApp;
}
