/**
 * Sending the Events methods: they are not in the SDK's method table, so each request
 * names a result schema. The shape is checked here, field by field, under the server's
 * budgets, so the SDK only needs to see an object.
 */
import { z } from 'zod';

/** Any JSON object (the Events results are checked by the code that reads them). */
export const ANY_RESULT = z.looseObject({});
