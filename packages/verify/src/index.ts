export { applyPatch, type PatchChange, type PatchResult, parsePointer } from './apply-patch.ts';
export { type ArtifactFix, type FixPlan, type PlanFixesOptions, planFixes, type SkippedFix } from './plan-fixes.ts';
export { type Checked, countChecked, STATIC_LAYERS, type StaticLayer, type Verification, type VerifyOptions, verify } from './verify.ts';
