import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The sample's skills folder (`sample-app/skills`), or `MCP_SKILLS_DIR`. Found by walking up from
 * here, so it is the same folder from the sources, from dist-sample/ and from a copy of dist-sample/
 * inside the project.
 */
export function sampleSkillsFolder(): string {
  const fromEnv = process.env.MCP_SKILLS_DIR;
  if (fromEnv) return fromEnv;
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const candidate = join(dir, 'sample-app', 'skills');
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new Error('sample-app/skills not found; set MCP_SKILLS_DIR');
  }
}
