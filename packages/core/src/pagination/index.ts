export {
  CURSOR_FORMAT_VERSION,
  type CursorCodec,
  type CursorCodecOptions,
  type CursorPayload,
  createCursorCodec,
  MALFORMED_CURSOR_MESSAGE,
} from "./cursor-codec.js";
export {
  compareKeyParts,
  compareKeys,
  isKeyPart,
  type KeyPart,
  type SortDirection,
  type SortKey,
} from "./key-order.js";
export {
  COVERAGE_CHANGED_MESSAGE,
  FOREIGN_CURSOR_MESSAGE,
  openCursor,
  type Page,
  type PageOrder,
  type PageRequest,
  type PresortedShare,
  paginate,
  paginatePresorted,
} from "./paginate.js";
export {
  digestQuery,
  digestSignature,
  type QueryIdentity,
  type QuerySignature,
  type SignatureValue,
} from "./query-signature.js";
