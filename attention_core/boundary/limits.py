"""Every size a user controls is capped here, in one place.

The app runs as one Python process shared by a whole classroom (690 MB - 2.7 GB
of memory, at most two cores). Each cap below keeps one user's choice from
costing everyone else; the comment says why the number is what it is.
"""

# A T x T heatmap of 128 tokens is 16 384 cells: legible on a projector and about
# 90 kB on the wire as float32. Thousands of tokens would freeze the browser.
MAX_TOKENS = 128

# Masks built by the core: a 4096 x 4096 bool mask is 16 MB; larger would let
# one call allocate gigabytes in the shared process.
MAX_MASK_SIZE = 4096

# Text beyond this is not even tokenized: a pasted book must not cost CPU time.
MAX_TEXT_CHARS = 20_000

# Model width. 512 matches the original Transformer; wider adds nothing to teach
# and makes a (T, d_model) matrix too wide to read.
MAX_D_MODEL = 512

# Heads: 16 small multiples still fit a screen.
MAX_HEADS = 16

# Positional-encoding page: sequence length for the PE heatmap (512 x 512 cells).
MAX_POSITIONS = 512

# Time-series uploads: big enough for years of daily data, small enough to parse
# in well under a second and to keep per-session memory to a few MB.
MAX_UPLOAD_BYTES = 5 * 1024 * 1024
MAX_SERIES_ROWS = 100_000
MAX_SERIES_COLUMNS = 50
# A table with a column per year (a row per series) may be wider before it is turned.
MAX_TABLE_COLUMNS = 400
# Values beyond this are a unit or parsing mistake in practice; the model trains
# in float32, where squares of larger numbers overflow.
MAX_SERIES_ABS_VALUE = 1e15

# Time-series window (the attention length on that page).
MAX_WINDOW = 128

# Training budget: optimiser steps per run, so one session's training ends in
# seconds on one core.
MAX_TRAIN_STEPS = 2_000
# ... and wall-clock seconds per run, whatever the model size: training holds a
# lock (one run at a time per server), so no run may keep others waiting long.
MAX_TRAIN_SECONDS = 60
# Windows (examples) per run: the most recent ones. 5 000 windows are 14 years
# of daily data; more only slows the validation passes.
MAX_TRAIN_WINDOWS = 5_000

# Time-series model size: layers and the feed-forward block's hidden width.
MAX_LAYERS = 4
MAX_HIDDEN = 256
# Multiply-adds of one forward pass over a batch: beyond this a training step takes
# seconds on one core and the time budget would stop training almost at once.
MAX_STEP_MACS = 400_000_000

# The time-series page's error with each head off (attention_core/timeseries/heads_off.py):
# 2 L H forward passes over the validation windows. Below this many multiply-adds (seconds
# on one thread; the default model needs a few hundred million) it runs once a model is
# trained; above (up to ~800 billion at the largest model), only when asked.
MAX_SWEEP_MACS = 10_000_000_000

# Heads turned off at once (attention_core/maths/ablation.py), counted before a link's list
# is read: more than any model the app runs has (SmolLM2-135M 270, GPT-2 medium 384), and
# 512 pairs stay a few kB in a link.
MAX_ABLATED_HEADS = 512

# Walkthrough step 3: keys per random query in the softmax-saturation table
# (500 trials x 5 widths up to 512 stay well under a second).
MAX_WALKTHROUGH_KEYS = 64

# Temperature for the "what if" view; outside this range softmax is just one-hot
# or uniform and nothing more is learned.
MIN_TEMPERATURE = 0.05
MAX_TEMPERATURE = 20.0

# Seeds are shown in the URL; keep them short.
MAX_SEED = 2**31 - 1

# Learning rates of both trainings (AdamW on small models): below 1e-5 nothing
# visibly moves within the step budget, above 0.1 training diverges.
MIN_LEARNING_RATE = 1e-5
MAX_LEARNING_RATE = 0.1

# Learning page (a tiny transformer on a toy task): small enough that every
# setting trains in seconds on one core, big enough to show several heads.
MIN_LEARNING_D_MODEL = 16
MAX_LEARNING_D_MODEL = 64
MAX_LEARNING_LAYERS = 2
MAX_LEARNING_HEADS = 4
MAX_LEARNING_STEPS = 3_000
# Seconds per run: the training lock keeps other trainings waiting meanwhile.
MAX_LEARNING_SECONDS = 30
# Trained models kept per server (each about 0.2 MB: the replay's attention, the final matrices).
MAX_CACHED_LEARNING_RUNS = 64

# Lessons (attention_core/teaching/lesson.py, docs/lessons.md). A lesson is read whole
# before it is checked, so a file's size is capped first: 50 steps, each a view with a
# sentence of MAX_TEXT_CHARS, fit in 2 MB, and parsing 2 MB of JSON takes milliseconds.
MAX_LESSON_BYTES = 2_000_000
# Steps: a 50-minute class at one a minute; the course's longest lesson needs about 25.
MAX_LESSON_STEPS = 50
# A lesson's or a step's title: one line of a list of steps, even on a phone.
MAX_LESSON_TITLE_CHARS = 100
# A lesson's description: two or three sentences under its title.
MAX_LESSON_DESCRIPTION_CHARS = 500
# A step's text: "a few lines" above the live page, about half a screen.
MAX_STEP_TEXT_CHARS = 2_000
# A step's prompt: one thing to try, in a sentence or two.
MAX_STEP_PROMPT_CHARS = 500
# A step's view: as many settings as a class's view holds (the largest page binds ~40).
MAX_STEP_SETTINGS = 64
# The lesson parameter of a link, compressed: browsers and nginx take 8 kB of request
# line; 6 000 characters leave room for the address and the page's own parameters.
MAX_LESSON_LINK_CHARS = 6_000
