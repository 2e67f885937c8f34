import {
  InvalidCiphertextException,
  KMSInvalidStateException,
  NotFoundException,
} from '@aws-sdk/client-kms';
import { kmsFailure } from './aws-kms-failure';

const ACCOUNT = '123456789012';
const ARN = `arn:aws:kms:eu-west-1:${ACCOUNT}:key/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0`;
const metadata = { $metadata: { httpStatusCode: 400 } };

describe('kmsFailure', () => {
  it("names KMS's exception and what it means, never its message (which names ARNs and accounts)", () => {
    const cases: [Error, string][] = [
      [
        new KMSInvalidStateException({ message: `${ARN} is pending deletion.`, ...metadata }),
        'KMSInvalidStateException (the KMS key is disabled or pending deletion)',
      ],
      [
        // Not modelled by the SDK: it arrives as a service exception named by KMS's answer.
        Object.assign(
          new Error(
            `User: arn:aws:iam::${ACCOUNT}:user/ci is not authorized to perform: kms:Decrypt on resource: ${ARN}`,
          ),
          { name: 'AccessDeniedException', $fault: 'client', ...metadata },
        ),
        'AccessDeniedException (the credentials may not use this KMS key)',
      ],
      [
        new NotFoundException({ message: `Key '${ARN}' does not exist`, ...metadata }),
        'NotFoundException (no such KMS key)',
      ],
      [
        new InvalidCiphertextException({ message: '', ...metadata }),
        'InvalidCiphertextException (the blob is not one KMS made for this key id, endpoint and KMS key (its encryption context))',
      ],
    ];
    for (const [error, expected] of cases) {
      expect(kmsFailure(error)).toBe(expected);
      expect(kmsFailure(error)).not.toContain(ACCOUNT);
    }
  });

  it('says "unreachable" with the system error code, never the address or port', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.1.2.3:4566'), {
      code: 'ECONNREFUSED',
      address: '10.1.2.3',
      port: 4566,
    });
    expect(kmsFailure(refused)).toBe('KMS unreachable (ECONNREFUSED)');
    const unknownHost = Object.assign(new Error('getaddrinfo ENOTFOUND kms.internal.example'), {
      code: 'ENOTFOUND',
    });
    expect(kmsFailure(unknownHost)).toBe('KMS unreachable (ENOTFOUND)');
    // The SDK's wrapper of a socket error from another realm quotes it in its message.
    const wrapped = new Error(
      'AWS SDK error wrapper for Error: connect ECONNREFUSED 10.1.2.3:4566',
    );
    expect(kmsFailure(wrapped)).toBe('KMS unreachable (ECONNREFUSED)');
  });

  it('names an exception it does not know by its name and status, and anything else without its text', () => {
    expect(
      kmsFailure(
        Object.assign(new Error('the tenant t-91 is over quota'), {
          name: 'LimitExceededException',
          $fault: 'client',
          ...metadata,
        }),
      ),
    ).toBe('LimitExceededException (HTTP 400)');
    // What the SDK makes of an HTML page from a proxy: a SyntaxError quoting the page.
    const html = Object.assign(
      new SyntaxError('Unexpected token \'<\', "<!doctype "... is not valid JSON'),
      {
        $metadata: { httpStatusCode: 502 },
      },
    );
    expect(kmsFailure(html)).toBe('the endpoint answered HTTP 502, not a KMS answer');
    expect(kmsFailure(new Error('connect to https://kms.internal.example failed'))).toBe(
      'an unexpected error',
    );
    expect(kmsFailure(Object.assign(new Error('x'), { name: 'Bad name: with text' }))).toBe(
      'an unexpected error',
    );
    expect(kmsFailure('a string')).toBe('an unexpected error');
    expect(kmsFailure(undefined)).toBe('an unexpected error');
  });
});
