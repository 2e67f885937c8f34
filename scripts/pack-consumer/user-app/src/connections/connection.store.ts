import { Injectable } from '@nestjs/common';

/**
 * GitHub connections by sign-in flow: a flow is begun by the `connect_github` tool for a user and
 * completed when GitHub sends the browser back to the callback route with the flow's id.
 */
@Injectable()
export class ConnectionStore {
  private readonly pending = new Map<string, string>();
  private readonly connected = new Map<string, string>();

  begin(flowId: string, userId: string): void {
    if (!this.connected.has(flowId)) this.pending.set(flowId, userId);
  }

  complete(flowId: string): boolean {
    const userId = this.pending.get(flowId);
    if (userId === undefined) return false;
    this.pending.delete(flowId);
    this.connected.set(flowId, userId);
    return true;
  }

  connectedUser(flowId: string): string | undefined {
    return this.connected.get(flowId);
  }
}
