import { Controller, Get, Header, NotFoundException, UseGuards } from '@nestjs/common';
import { sampleAuditSigner } from '../audit/sample-audit';
import { AdminTokenGuard } from './admin-token.guard';

/**
 * The public key of the audit trail's checkpoints, for the demo (admin token). In production pin
 * it out of band — from the HSM or KMS — never from the server being audited.
 */
@Controller('admin/audit')
@UseGuards(AdminTokenGuard)
export class AuditAdminController {
  @Get('public-key')
  @Header('content-type', 'application/x-pem-file')
  async publicKey(): Promise<string> {
    const signer = sampleAuditSigner();
    if (!signer) throw new NotFoundException('The audit trail is off (MCP_AUDIT)');
    return signer.publicKeyPem();
  }
}
