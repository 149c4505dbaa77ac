export { type Checked, countChecked, STATIC_LAYERS, type StaticLayer, type Verification, type VerifyOptions, verify } from './verify.ts';
