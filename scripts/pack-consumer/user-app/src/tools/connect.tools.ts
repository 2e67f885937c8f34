import { Injectable } from '@nestjs/common';
import { McpContext, McpMayRequestInput, McpTool } from 'nestjs-mcp';
import type { AppUser } from '../auth/app-user.js';
import { CurrentUser } from '../auth/current-user.decorator.js';
import { ConnectionStore } from '../connections/connection.store.js';

/** Where the app's own sign-in page lives (it sends the browser on to GitHub). */
const CONNECT_PAGE = 'https://app.example.com/connect/github';

@Injectable()
export class ConnectTools {
  constructor(private readonly connections: ConnectionStore) {}

  // The replay-style sign-in URL recipe: the URL names the flow (ctx.flowId, the same on every
  // round), so the handler asks the same question each time it runs from the top.
  @McpTool({
    name: 'connect_github',
    description: 'Connects your GitHub account: sends you to sign in',
    replay: true,
  })
  @McpMayRequestInput({ type: 'elicitation.url' })
  async connectGithub(
    @McpContext() ctx: McpContext,
    @CurrentUser() user: AppUser,
  ): Promise<string> {
    this.connections.begin(ctx.flowId, user.userId);
    const answer = await ctx.elicitUrl({
      message: 'Sign in to GitHub to connect your account',
      url: `${CONNECT_PAGE}?flow=${ctx.flowId}`,
    });
    if (answer.action !== 'accept') return `GitHub not connected (${answer.action})`;
    return this.connections.connectedUser(ctx.flowId) === user.userId
      ? `GitHub connected for ${user.username}`
      : 'GitHub sign-in not finished';
  }
}
