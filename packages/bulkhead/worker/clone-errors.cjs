'use strict';
// The module every worker thread of a `PoolBulkhead.workers` pool starts with (piscina's default
// `filename`; each task names the user's own module). It exports no task of its own.
//
// piscina sends a task's outcome to the main thread with `MessagePort#postMessage`. When the value
// the task returned (or threw) cannot be copied by structured clone — a function, a symbol, an
// object holding one — that post throws a `DataCloneError` inside the worker, and the caller
// would receive a bare `{}` in its place. This module turns that one failure into an `Error`
// saying what could not be cloned (the `DataCloneError`'s own message names the value), posted as
// the task's outcome instead; every other message, and every other failure, goes through untouched.
const { MessagePort } = require('node:worker_threads');

const post = MessagePort.prototype.postMessage;

/** piscina's response to a task: `{ taskId, result, error, time }`. */
function isTaskOutcome(message) {
  return message !== null && typeof message === 'object' && 'taskId' in message && 'result' in message && 'error' in message;
}

MessagePort.prototype.postMessage = function postMessage(message, transferList) {
  try {
    return post.call(this, message, transferList);
  } catch (error) {
    if (!isTaskOutcome(message) || error === null || typeof error !== 'object' || error.name !== 'DataCloneError') throw error;
    const what = message.error != null ? 'the value the task threw' : 'the value the task returned';
    return post.call(this, { ...message, result: null, error: new Error(`${what} could not be cloned to the main thread: ${error.message}`) });
  }
};

module.exports = function noTask() {
  throw new Error('PoolBulkhead.workers: a task was sent without its module');
};
