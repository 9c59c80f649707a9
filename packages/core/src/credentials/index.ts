/** Exchange credentials: the service (secrets sealed at rest, never returned) and the AES-256-GCM SecretBox. */
export { createAesGcmSecretBox, generateMasterKey, type AesGcmSecretBoxConfig, type MasterKeyInput } from './create-secret-box.js';
export {
  createCredentialService,
  credentialAad,
  type CredentialService,
  type CredentialServiceDeps,
  type CredentialSecrets,
  type OpenedCredential,
} from './credential-service.js';
export { toCredentialView, keyHintOf, type CredentialView } from './credential-views.js';
