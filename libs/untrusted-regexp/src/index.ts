export { compileUntrusted, re2Message, re2SyntaxError, untrustedMatch, untrustedRegexpError } from './untrusted-regexp';
