/** The sample's `transfer_funds` arguments most suites send. */
export const TRANSFER = { amount: '12.50', to: 'bob' };

/** The `inputResponses` that approve it: the form's `approval` answer, accepted. */
export const APPROVE = { approval: { action: 'accept', content: { approve: true } } };
