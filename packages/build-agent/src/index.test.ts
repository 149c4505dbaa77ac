import { describe, expect, it } from 'vitest';
import * as api from './index.ts';

describe('@bvl/build-agent public surface', () => {
  it('exports exactly these names (a new export is a decision)', () => {
    expect(Object.keys(api).sort()).toEqual([
      'AGENT_ARTIFACT_TYPES',
      'AGENT_TOOL_NAMES',
      'BuildSetupError',
      'DEFAULT_CALL_TIMEOUT_MS',
      'DEFAULT_MAX_TURNS_PER_ROUND',
      'DEFAULT_PRICES',
      'DEFAULT_RETRY',
      'IntentReviewSchema',
      'MAX_IDLE_INTERVENTIONS',
      'MAX_SYSTEM_PROMPT_CHARS',
      'MAX_TURNS_PER_ROUND',
      'ModelCallError',
      'agentClientFromEnv',
      'createAgentClient',
      'judgeFromEnv',
      'packageArtifacts',
      'reviewIntent',
      'reviewPackage',
      'runBuild',
      'systemPrompt',
    ]);
  });

  it('the package exports map sources for development and dist for everyone else', async () => {
    const manifest = (await import('../package.json', { with: { type: 'json' } })).default;
    expect(manifest.exports['.']).toEqual({ development: './src/index.ts', types: './dist/index.d.ts', default: './dist/index.js' });
    expect(manifest.files).toEqual(['dist']);
  });
});
