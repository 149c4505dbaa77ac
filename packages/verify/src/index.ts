export { applyPatch, type PatchChange, type PatchResult, parsePointer } from './apply-patch.ts';
export { type FailedFix, type FileCheck, type FixedValue, type FixStopped, type FixTextsResult, fixTexts, MAX_FIX_ROUNDS } from './fix-texts.ts';
export { patchJsonText, type TextPatchResult } from './patch-json-text.ts';
export { type ArtifactFix, type FixPlan, type PlanFixesOptions, planFixes, type SkippedFix } from './plan-fixes.ts';
export { type Checked, countChecked, STATIC_LAYERS, type StaticLayer, type Verification, type VerifyOptions, verify, verifyStreamed } from './verify.ts';
