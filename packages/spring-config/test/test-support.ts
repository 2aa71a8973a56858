// What the tests of fromConfig share: the error classes a config names, and the map that names them.

export class GatewayError extends Error {}
export class BusinessError extends Error {}
export class TimeoutException extends Error {}

/** The `classes` option of fromConfig for the Java names the test configs use. */
export const classes = {
  'com.acme.GatewayException': GatewayError,
  'com.acme.BusinessException': BusinessError,
  'java.util.concurrent.TimeoutException': TimeoutException,
};
