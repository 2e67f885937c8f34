import { isLaunchedCallerRequest } from '../../kit/launched-caller';
import { Inject, Injectable } from '@nestjs/common';
import type { ServerContext } from '@modelcontextprotocol/server';
import type { ServedSkill } from './served-skill';
import {
  AUTH_OPTIONS,
  DISCOVERY_OPTIONS,
  OperationRunner,
  type AuthOptions,
  type DiscoveryOptions,
  type HttpExchange,
  type OperationRunInput,
} from '../../extension-api';

/**
 * Whether a caller may see one skill, for the requests that name it (`skills/get`, `resources/read`
 * of its files, `resources/directory/read` of its folders). Lists page per caller through
 * `McpOperationVisibility`, with the same guards.
 * @internal
 */
@Injectable()
export class SkillVisibility {
  /** Whether the resource server answers callers without a token 401 (no skill is public). */
  private readonly tokenRequired: boolean;

  constructor(
    private readonly runner: OperationRunner,
    @Inject(DISCOVERY_OPTIONS) private readonly options: DiscoveryOptions,
    @Inject(AUTH_OPTIONS) auth: AuthOptions,
  ) {
    this.tokenRequired = auth.resourceServer?.requireToken === true;
  }

  /**
   * With lists per caller (`auth.lists: 'caller'`, the default): whether the skill's guards and
   * scopes let this caller through — any refusal, a 401 included, means no, so a skill the caller
   * may not see answers exactly as one nobody serves. With `auth.lists: 'public'` every skill is
   * listed to everyone, and a refusal is answered as the guard made it, as a tool call's is.
   */
  async sees(skill: ServedSkill, sdk: ServerContext, exchange: HttpExchange): Promise<boolean> {
    if (
      this.tokenRequired &&
      (exchange.raw as { auth?: unknown }).auth === undefined &&
      !isLaunchedCallerRequest(exchange.raw)
    )
      return false;
    if (!skill.guardsHandler) return true;
    const input: OperationRunInput = {
      operation: skill,
      target: skill.name,
      params: {},
      args: {},
      http: exchange,
      sdk,
    };
    if (this.options.listVisibility === 'public') {
      await this.runner.authorize(input);
      return true;
    }
    try {
      return await this.runner.visible(input);
    } catch {
      return false;
    }
  }
}
