/**
 * The operate configs one pairing can fill besides the read config: the gate's write.json and
 * ops' ops.json. Its own module, free of imports, so a CLI can parse `--also` without loading
 * pairing (core's cli-support re-exports it).
 */
export const OPERATE_CONFIG_NAMES = ["write", "ops"] as const;
export type OperateConfigName = (typeof OPERATE_CONFIG_NAMES)[number];
