import { invalid, type FieldErrors } from '@glp/service-kit';
import { namespacePathErrors } from './namespace-path';

export interface NewUser {
  username: string;
  name: string;
  email: string;
  password?: string;
  isAdmin: boolean;
  projectsLimit: number;
  canCreateGroup: boolean;
  external: boolean;
  privateProfile: boolean;
  bio: string;
  location: string;
  publicEmail: string;
  websiteUrl: string;
  organization: string;
  jobTitle: string;
  skipConfirmation: boolean;
}

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
export const DEFAULT_PROJECTS_LIMIT = 100000;
export const MIN_PASSWORD_LENGTH = 8;

/** Validates a user about to be created; throws an `invalid` domain error listing every field problem. */
export function validateNewUser(u: NewUser): void {
  const errors: FieldErrors = {};
  const add = (field: string, msg: string) => (errors[field] ??= []).push(msg);
  if (!u.name.trim()) add('name', "can't be blank");
  if (u.name.length > 255) add('name', 'is too long (maximum is 255 characters)');
  for (const m of namespacePathErrors(u.username)) add('username', m);
  if (!u.email) add('email', "can't be blank");
  else if (!EMAIL.test(u.email)) add('email', 'is invalid');
  if (u.publicEmail && u.publicEmail !== u.email) add('public_email', 'is not an email you own');
  if (u.password !== undefined && u.password.length < MIN_PASSWORD_LENGTH) {
    add('password', `is too short (minimum is ${MIN_PASSWORD_LENGTH} characters)`);
  }
  if (u.projectsLimit < 0) add('projects_limit', 'must be greater than or equal to 0');
  if (Object.keys(errors).length) throw invalid(errors);
}

/**
 * GitLab's `User#ensure_user_rights_and_limits` (before_save of a new user, and of one whose `external` flag changes):
 * an external user may create neither groups nor personal projects (can_create_group false, projects_limit 0); a user
 * made internal again gets the instance defaults back for what the same request did not set.
 */
export function rightsAndLimits(
  u: { external: boolean; projectsLimit: number; canCreateGroup: boolean },
  sent: { projectsLimit: boolean; canCreateGroup: boolean },
): { projectsLimit: number; canCreateGroup: boolean } {
  if (u.external) return { projectsLimit: 0, canCreateGroup: false };
  return { projectsLimit: sent.projectsLimit ? u.projectsLimit : DEFAULT_PROJECTS_LIMIT, canCreateGroup: sent.canCreateGroup ? u.canCreateGroup : true };
}
