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
export { echoResponder, promptTooLong, startLoopbackApi } from './loopback-server.ts';
export { messagesProblems } from './messages-validation.ts';
export { estimateApiTokens, lastUserText, messageText, requestText } from './request-text.ts';
