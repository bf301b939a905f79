/**
 * Which auto-move rule the proof checker vouches for (docs/proofs.md, "Why
 * each reduction is sound"), and step 2 of the check: the certificate's
 * reductions are exactly the ones it can vouch for.
 */
import type { Rules } from '../rules.js';
import { Rejection } from './check-result.js';
import { KEY_ENCODING, POOLED_KEY_ENCODING, type AutoMoveRule, type CertificateHeader } from './format.js';

/**
 * The auto-move rule this checker accepts for `rules`. The arguments are in
 * docs/proofs.md ("Why each reduction is sound"); each shows that sending
 * the card home keeps a solvable position solvable. One exception:
 * `suit_up_or_down` with `unlimited` sequence moves, where a run can be
 * parked on the card in one move with no free cell or column to spare, and
 * once the card is home the run may have nowhere to go. There only `none`
 * (no auto-moves) is accepted, as `suit_always` is unsound there
 * (docs/proofs.md has a position that sending every fitting card home makes
 * unsolvable though it has a 12-move solution); the engine applies no
 * auto-moves there either.
 */
export function vouchedAutoMoveRule(rules: Rules): AutoMoveRule {
  if (rules.build === 'suit_up_or_down' && rules.sequenceMove === 'unlimited') return 'none';
  const suitLike = rules.build === 'suit' || rules.build === 'suit_up_or_down';
  if (rules.wrap) return suitLike ? 'suit_wrap_not_base' : 'none';
  if (suitLike) return 'suit_always';
  return rules.build === 'alternate_color' ? 'alternate_color_horne' : 'rank_other_within_2';
}

/**
 * Step 2: the reductions a header must declare: exactly these names, the rule on `safe_auto_moves`.
 * @returns the auto-move rule the check then applies
 * @throws Rejection `unsupported_reduction`
 */
export function checkReductions(header: CertificateHeader): AutoMoveRule {
  if (header.pools !== undefined || header.keyEncoding !== KEY_ENCODING) return checkPooledReductions(header);
  const vouched = vouchedAutoMoveRule(header.rules);
  const names = header.reductions.map((r) => r.name).sort();
  const want = ['column_order', 'free_cell_order', 'safe_auto_moves'];
  if (names.join(',') !== want.join(',')) {
    throw new Rejection(
      'unsupported_reduction',
      `the header declares the reductions [${names.join(', ')}]; this checker vouches for exactly [${want.join(', ')}]`,
    );
  }
  const auto = header.reductions.find((r) => r.name === 'safe_auto_moves')!;
  if (auto.rule !== vouched) {
    throw new Rejection(
      'unsupported_reduction',
      `the header declares the auto-move rule ${JSON.stringify(auto.rule ?? null)}; under these rules this checker vouches only for ${vouched}`,
    );
  }
  for (const r of header.reductions) {
    if (r.name !== 'safe_auto_moves' && r.rule !== undefined) {
      throw new Rejection('unsupported_reduction', `reduction ${r.name} takes no rule`);
    }
  }
  return vouched;
}

/**
 * Step 2 of a pooled certificate (docs/proofs.md, "Pooled certificates"):
 * `pools` and the key encoding `pooled-6bit-le-v1` come together; the rules'
 * tableau must not look at suit (`rank` build, no wrap), or merging suits
 * could add no moves but lose some; the reductions are exactly `suit_pools`,
 * `safe_auto_moves` with rule `rank_other_within_2_unpooled` (this checker
 * vouches for no auto-move of a card of a pool of two suits or more),
 * `column_order` and `free_cell_order`.
 * @returns `rank_other_within_2_unpooled`
 * @throws Rejection `bad_header` (pools without the pooled encoding or the
 *   reverse), `unsupported_reduction`
 */
function checkPooledReductions(header: CertificateHeader): AutoMoveRule {
  if (header.pools === undefined || header.keyEncoding !== POOLED_KEY_ENCODING) {
    throw new Rejection('bad_header', `header fields pools and keyEncoding ${POOLED_KEY_ENCODING} come together (keyEncoding ${header.keyEncoding}, pools ${header.pools === undefined ? 'absent' : 'present'})`);
  }
  const rules = header.rules;
  if (rules.build !== 'rank' || rules.wrap) {
    throw new Rejection('unsupported_reduction', `suit_pools: the pooled game proves nothing under build ${rules.build}${rules.wrap ? ' with wrap' : ''}; this checker vouches for it only where the tableau ignores suit (build rank, no wrap)`);
  }
  const names = header.reductions.map((r) => r.name).sort();
  const want = ['column_order', 'free_cell_order', 'safe_auto_moves', 'suit_pools'];
  if (names.join(',') !== want.join(',')) {
    throw new Rejection('unsupported_reduction', `the pooled header declares the reductions [${names.join(', ')}]; this checker vouches for exactly [${want.join(', ')}]`);
  }
  for (const r of header.reductions) {
    const ruleWanted = r.name === 'safe_auto_moves' ? 'rank_other_within_2_unpooled' : undefined;
    if (r.rule !== ruleWanted) {
      throw new Rejection('unsupported_reduction', r.name === 'safe_auto_moves'
        ? `the pooled header declares the auto-move rule ${JSON.stringify(r.rule ?? null)}; in the pooled game this checker vouches only for rank_other_within_2_unpooled`
        : `reduction ${r.name} takes no rule`);
    }
  }
  return 'rank_other_within_2_unpooled';
}
