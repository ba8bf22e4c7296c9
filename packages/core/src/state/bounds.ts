/**
 * Size bounds of the read tools that use the projection. Inputs outside them are
 * refused by the tools' strict schemas; the projection only applies the value it is given.
 */
export interface CharacterBounds {
  min: number;
  max: number;
  default: number;
}

/** `maxCharacters` of `t3_thread` and `t3_thread_read_batch`: limits `latestResponse` only. */
export const THREAD_MAX_CHARACTERS: CharacterBounds = { min: 200, max: 6000, default: 1500 };

/** `maxCharacters` of `t3_mensagens`: limits each message text. */
export const MESSAGES_MAX_CHARACTERS: CharacterBounds = { min: 100, max: 4000, default: 800 };

/** `maxCharacters` of `t3_aguardar_thread`'s `latestResponse`. */
export const WAIT_MAX_CHARACTERS: CharacterBounds = { min: 100, max: 4000, default: 800 };

/** `limit` of `t3_mensagens`. */
export const MESSAGES_LIMIT = { min: 1, max: 20, default: 6 } as const;

/** `limit` of `t3_control_plane`, applied to each list. */
export const CONTROL_PLANE_LIMIT = { min: 1, max: 100, default: 20 } as const;

/** A pending request's `detail` hint is cut to this many characters. */
export const REQUEST_DETAIL_MAX_CHARACTERS = 500;
