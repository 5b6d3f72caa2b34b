import cabo_kit


class MyBot(cabo_kit.SimpleBt):
    pass
