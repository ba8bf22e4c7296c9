export {
  matchesExactTitle,
  matchesNormalizedExactTitle,
  matchesNormalizedSearch,
  matchesSearch,
  type NormalizedSearchable,
  normalizeSearchable,
  normalizeSearchTerm,
  normalizeSearchText,
  type Searchable,
} from "./normalize.js";
