import os

print('hello')
