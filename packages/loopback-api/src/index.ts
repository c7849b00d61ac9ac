export type {
  ApiContentBlock,
  ApiMessage,
  ApiTextBlock,
  ApiToolResultBlock,
  ApiToolUseBlock,
  LoopbackApi,
  LoopbackOptions,
  LoopbackReply,
  MessagesRequestBody,
  RecordedRequest,
  Responder,
  Route,
} from './loopback-server.ts';
export { echoResponder, estimateApiTokens, lastUserText, messageText, requestText, startLoopbackApi } from './loopback-server.ts';
export { messagesProblems } from './messages-validation.ts';
