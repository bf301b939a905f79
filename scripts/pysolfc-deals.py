"""Deals of PySolFC games, made by PySolFC's own game classes.

Runs the real classes' shuffle(), _shuffleHook() and startGame() (and
PySolFC's TalonStack.dealRow) on a stand-in table whose piles are plain card
lists, and prints one JSON object a line: the columns (deepest card first),
the reserve or free cells, the foundation counts. It contains no PySolFC
code: PySolFC and pysol_cards must be on PYTHONPATH (their sources, e.g.
PYTHONPATH=PySolFC:pysol_cards/code). Made the Baker's Dozen, Good Measure,
Fan, King Albert, Siegecraft and Stronghold vectors of
tests/fixtures/data/deals/ (see its README); never run by the tests.

    python3 scripts/pysolfc-deals.py fan 1..200 32000 123456789
"""
import json
import sys

from pysol_cards.random import LCRandom31, MTRandom
from pysollib.stack import Stack, TalonStack
from pysollib.games.bakersdozen import BakersDozen, GoodMeasure
from pysollib.games.fan import FanGame
from pysollib.games.beleagueredcastle import Siegecraft, Stronghold, \
    BeleagueredCastle, StreetsAndAlleys, Citadel
from pysollib.games.klondike import KingAlbert

SUITS = 'CSHD'  # PySolFC suit order
RANKS = 'A23456789TJQK'


class Card:
    def __init__(self, id_, suit, rank):
        self.id, self.suit, self.rank = id_, suit, rank
        self.face_up = False

    def showBack(self, unhide=1):
        self.face_up = False

    def showFace(self, unhide=1):
        self.face_up = True

    def __str__(self):
        return RANKS[self.rank] + SUITS[self.suit]


class Pile:
    def __init__(self, game):
        self.game = game
        self.cards = []

    def addCard(self, card, update=1, **kw):
        self.cards.append(card)


class Foundation(Pile):
    def __init__(self, game, suit):
        Pile.__init__(self, game)
        self.suit = suit

    def acceptsCards(self, from_stack, cards):
        # SS_FoundationStack from the Ace (Citadel only)
        return (len(cards) == 1 and cards[0].suit == self.suit and
                cards[0].rank == len(self.cards))


class Talon(Pile):
    # PySolFC's own dealing code, bound to this pile
    dealRow = TalonStack.dealRow
    dealRowAvail = TalonStack.dealRowAvail
    dealToStacks = TalonStack.dealToStacks
    getCard = Stack.getCard


class S:
    pass


def mock_class(cls):
    class Mock(cls):
        S_DEAL = 0x40
        top = None

        def __init__(self, seed, rows, reserves):
            self.s = S()
            self.s.talon = Talon(self)
            self.s.waste = None
            self.s.rows = [Pile(self) for _ in range(rows)]
            self.s.reserves = [Pile(self) for _ in range(reserves)]
            self.s.foundations = [Foundation(self, i) for i in range(4)]
            self.cards = [Card(i, s, r) for i, (s, r) in enumerate(
                (s, r) for s in range(4) for r in range(13))]
            # pysol_cards (and the project) use the Microsoft generator up
            # to 32000 inclusive; PySolFC's app switches at seed < 32000.
            self.random = LCRandom31(seed) if seed <= 32000 \
                else MTRandom(seed)

        def startDealSample(self, *a, **k):
            pass

        def stopSamples(self, *a, **k):
            pass

        def enterState(self, state):
            return 0

        def leaveState(self, old):
            pass

        def flipMove(self, stack, *a, **k):
            stack.cards[-1].showFace()

        def moveMove(self, n, from_stack, to_stack, frames=-1, shadow=-1):
            assert n == 1
            to_stack.cards.append(from_stack.cards.pop())

    Mock.__name__ = 'Mock' + cls.__name__
    return Mock


GAMES = {
    # id: (class, rows, reserves)
    'bakers_dozen': (BakersDozen, 13, 0),
    'good_measure': (GoodMeasure, 10, 0),
    'fan': (FanGame, 18, 0),
    'king_albert': (KingAlbert, 9, 7),
    'siegecraft': (Siegecraft, 8, 1),
    'stronghold': (Stronghold, 8, 1),
    # controls: games whose vectors the project already has
    'beleaguered_castle': (BeleagueredCastle, 8, 0),
    'streets_and_alleys': (StreetsAndAlleys, 8, 0),
    'citadel': (Citadel, 8, 0),
}


def deal(game_id, seed):
    cls, rows, reserves = GAMES[game_id]
    g = mock_class(cls)(seed, rows, reserves)
    g.shuffle()          # Game.shuffle: random, _shuffleHook, to the talon
    g.startGame()        # the game's own startGame
    assert not g.s.talon.cards, 'cards left in the talon'
    return {
        'columns': [[str(c) for c in r.cards] for r in g.s.rows],
        'reserve': [[str(c) for c in r.cards] for r in g.s.reserves],
        'foundations': {SUITS[f.suit]: len(f.cards) for f in g.s.foundations},
    }


if __name__ == '__main__':
    game_id = sys.argv[1]
    for arg in sys.argv[2:]:
        if '..' in arg:
            a, b = arg.split('..')
            seeds = range(int(a), int(b) + 1)
        else:
            seeds = [int(arg)]
        for seed in seeds:
            d = deal(game_id, seed)
            d.update(game=game_id, deal=seed)
            print(json.dumps(d))
