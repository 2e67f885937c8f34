/**
 * What an unanswered `ctx.elicit()` / `createMessage()` / `listRoots()` rejects with: the round
 * ends here and the question goes to the client. Control flow, not a failure; whatever the handler
 * does with it, the round ends with the question.
 * @internal
 */
export class ReplayPendingSignal extends Error {
  override readonly name = 'ReplayPendingSignal';

  constructor() {
    super(
      'This round ends here: the question goes to the client and the handler runs again with its ' +
        'answer. Rethrow this if you catch it (docs/replay.md).',
    );
  }
}
