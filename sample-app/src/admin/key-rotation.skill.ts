import { Injectable, UseGuards } from '@nestjs/common';
import { McpSkill } from '../../../src/entry/skills';
import { AdminTokenGuard } from './admin-token.guard';

/**
 * A skill only operators see: how to rotate the sealing keys through this app's admin API. Built
 * by the app at startup (it names the app's own routes); guarded like the admin API itself, so a
 * caller without the admin token finds it in no list and reads it nowhere.
 */
@Injectable()
export class KeyRotationSkill {
  @UseGuards(AdminTokenGuard)
  @McpSkill()
  keyRotation() {
    return {
      name: 'key-rotation',
      files: {
        'SKILL.md': [
          '---',
          'name: key-rotation',
          'description: Rotate the server sealing keys with the admin API - stage, wait, activate, remove.',
          'metadata:',
          '  audience: operators',
          '---',
          '',
          '1. `POST /admin/keyring/stage` with `{"id":"<new id>","key":"<base64, 32 bytes or more>"}`.',
          '2. Wait until every instance reports the new fingerprint (`GET /admin/keyring`).',
          '3. `POST /admin/keyring/activate` with `{"id":"<new id>"}`.',
          '4. After the longest state lifetime, `POST /admin/keyring/remove` the old key.',
          '',
          'Each request carries `Authorization: Bearer <MCP_ADMIN_TOKEN>`. See `references/ORDER.md`.',
          '',
        ].join('\n'),
        'references/ORDER.md': [
          '# Why this order',
          '',
          'State sealed before activation is still opened with the old key until it is removed;',
          'removing it early makes in-flight rounds fail with "state expired" and the client restarts them.',
          '',
        ].join('\n'),
      },
    };
  }
}
