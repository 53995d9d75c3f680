/**
 * `subscribeEvents`: a poll or push subscription on one server, checked before it
 * starts. Webhooks go through `subscribeWebhook`, since the server, not this process,
 * delivers them.
 */
import { utf8Bytes } from '../../../core/budget.js';
import type { ServerRegistration } from '../../registration.js';
import { McpEventError } from './errors.js';
import { MAX_EVENT_NAME_BYTES } from './list.js';
import { pollRound } from './poll.js';
import { pushRound } from './push.js';
import { EventSubscriptionRun } from './subscriber.js';
import type { McpEventSink, McpEventSubscription, McpEventSubscriptionRequest } from './types.js';

export function subscribeEvents(registration: ServerRegistration, request: McpEventSubscriptionRequest, sink: McpEventSink): McpEventSubscription {
  const { id } = registration;
  const mode = request.mode as string;
  if (mode === 'webhook') throw new McpEventError(id, 'invalid_params', 'Webhook subscriptions use subscribeWebhook: the server delivers them to your URL.');
  if (mode !== 'poll' && mode !== 'push') throw new McpEventError(id, 'invalid_params', `The delivery mode must be "poll" or "push", got ${JSON.stringify(mode)}.`);
  const bytes = utf8Bytes(typeof request.name === 'string' ? request.name : '');
  if (bytes === 0 || bytes > MAX_EVENT_NAME_BYTES) throw new McpEventError(id, 'invalid_params', `An event type name must be 1 to ${MAX_EVENT_NAME_BYTES} bytes, got ${bytes}.`);
  return new EventSubscriptionRun(registration, { ...request }, sink, (context) => (mode === 'push' ? pushRound(registration, context) : pollRound(registration, context)));
}
