"""The one exception the core raises for input a user can fix."""


class InputError(ValueError):
    """Raised for every input the core refuses.

    The message is written for the person using the app: it says what is wrong
    and what to change, e.g. "8 heads do not divide d_model = 12; choose 1, 2, 3,
    4, 6 or 12 heads".
    """
