// `nestjs-mcp/aws-kms`: data keys held by AWS KMS (envelope encryption). Importing this subpath's
// wrapper needs the optional peer `@aws-sdk/client-kms`. See docs/key-rotation.md.

export { AwsKmsKeyWrapper } from '../keyring/aws-kms/aws-kms-key-wrapper';
